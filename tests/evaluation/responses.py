"""Realistic model responses to a SciVer claim with their right reading, in the styles of the
model families SciVer evaluates (and the open ones people run on it): the reading's test table,
and the README's figure of how often SciVer's substring rule and ours disagree on it."""

from __future__ import annotations

from dataclasses import dataclass

E, R, NONE = "entailed", "refuted", None


@dataclass(frozen=True)
class Case:
    family: str
    response: str
    right: str | None
    why: str = ""  # what the row is there to show


CASES: list[Case] = [
    # --- GPT-4o / GPT-4.1 / o4-mini: markdown headings, bold answer lines -----------------------
    Case(
        "gpt",
        "### Reasoning\n1. Table 2 reports 45.2 BLEU for Ours and 43.1 for the "
        "baseline.\n2. The claim says Ours is higher.\n\n**Answer: yes**",
        E,
    ),
    Case(
        "gpt",
        "The chart shows the loss of the Bayesian variant flattening after epoch 20, "
        "not epoch 10 as claimed.\n\nAnswer: no",
        R,
        "Bayesian contains yes",
    ),
    Case(
        "gpt",
        "**Step 1:** Table 3 lists 71.3% for GPT-4 and 69.8% for Llama.\n**Step 2:** The "
        "claim states the gap is 1.5 points, which matches.\n\n**Final answer:** Entailed",
        E,
        "entailed without yes",
    ),
    Case(
        "gpt",
        "Based on Figure 4, the accuracy decreases as the number of retrieved passages "
        "grows beyond 8. The claim that accuracy keeps increasing is therefore **refuted**.",
        R,
    ),
    Case(
        "gpt",
        "Answer: No. The table shows that the naive Bayes baseline (62.1) outperforms "
        "the proposed method (60.4) on SST-2, contrary to the claim.",
        R,
        "naive Bayes after the answer",
    ),
    Case(
        "gpt",
        "The claim is supported by Table 1: the model with LoRA rank 16 reaches 88.4, "
        "the best in the column.",
        E,
        "supported, no yes",
    ),
    Case(
        "gpt",
        "Looking at the figure, the red curve (ours) stays below the blue one at every "
        "budget. The claim is not supported by the evidence.\n\nAnswer: No",
        R,
    ),
    Case(
        "gpt",
        "Yes. Table 5 confirms that removing the contrastive loss drops recall@10 from "
        "74.3 to 70.7.",
        E,
    ),
    Case("gpt", "Answer: yes/no\n\nI could not open the image of Table 2.", NONE, "template echo"),
    Case(
        "gpt",
        "I'm sorry, but I can't see the chart you are referring to. Could you describe it?",
        NONE,
        "refusal",
    ),
    Case(
        "gpt",
        "Reasoning: the paper reports results for 3 seeds; the claim mentions 5. "
        "Everything else matches.\nVerdict: False",
        R,
    ),
    Case(
        "gpt",
        "**Conclusion:** The statement is **true**. Both Table 2 and Figure 3 show the "
        "distilled model within 1 point of the teacher.",
        E,
        "true, no yes",
    ),
    Case(
        "gpt",
        "The claim is incorrect: Table 4 reports a 12% reduction in latency, not 21%.\n\n"
        "Answer: no",
        R,
    ),
    # o4-mini: short justification then the final line the prompt asks for
    Case("gpt", "Ours: 0.812 F1; baseline: 0.799. Difference 0.013 as stated.\nAnswer: yes", E),
    Case(
        "gpt",
        "The claim says the eyes-closed condition had the highest error; Figure 2 shows "
        "it had the lowest.\nAnswer: no",
        R,
        "eyes-closed",
    ),
    # --- Claude: prose, the verdict in the last paragraph -------------------------------------
    Case(
        "claude",
        "Looking at Table 3, the proposed method achieves 67.2 on MMLU while the "
        "strongest baseline reaches 65.9.\n\nThe claim states that the method outperforms all "
        "baselines on MMLU, which is consistent with these numbers. The claim is therefore "
        "entailed.",
        E,
        "entailed, no yes",
    ),
    Case(
        "claude",
        "I need to check two things: whether the speedup is 2.3x and whether it holds "
        "on both GPUs.\n\nFigure 5 shows 2.3x on the A100 but only 1.7x on the V100. Since the "
        "claim says the speedup holds on both, it is contradicted by the figure.\n\nAnswer: no",
        R,
    ),
    Case(
        "claude",
        "The relevant evidence is in Table 2, where the ablation without the retrieval "
        "module scores 54.1 compared with 58.6 for the full model. This supports the claim "
        "that retrieval contributes about 4.5 points.",
        E,
        "this supports the claim",
    ),
    Case(
        "claude",
        "Yesterday's version of this benchmark is not what the claim is about; the "
        "figure shows the 2024 split. On that split the gap is 3.1 points, not 5.\n\nThe claim "
        "is refuted.",
        R,
        "Yesterday",
    ),
    Case(
        "claude",
        "I don't have enough information to verify this claim. The table image appears "
        "to be cut off before the row for the 7B model.",
        NONE,
        "abstains",
    ),
    Case(
        "claude",
        "Let me work through this.\n\nThe chart's y-axis is accuracy and the x-axis is "
        "the number of demonstrations. Accuracy peaks at 16 demonstrations.\n\nThe claim says it "
        "peaks at 32. That doesn't match what the chart shows, so the claim is false.",
        R,
    ),
    Case(
        "claude",
        "Checking the numbers: 91.2 − 88.7 = 2.5, which is what the claim states. "
        "The comparison in the claim is also in the right direction.\n\nAnswer: yes",
        E,
    ),
    Case(
        "claude",
        "The evidence here is mixed. Table 1 supports the first half of the claim, "
        "but Figure 2 neither confirms nor contradicts the second half, since it only covers "
        "English. I can't determine whether the claim as a whole is entailed.",
        NONE,
        "mixed, no decision",
    ),
    Case(
        "claude",
        "The claim is not entirely accurate. While the method does improve over the "
        "baseline, the improvement on CIFAR-100 is 1.2 points rather than 2.1.\n\nVerdict: "
        "refuted",
        R,
    ),
    Case(
        "claude",
        "Based on my analysis of Table 4, I would say the claim is correct: every "
        "configuration with more than 4 heads scores above 80.",
        E,
    ),
    Case(
        "claude",
        "Is the claim entailed or refuted? Refuted. The paper reports the Bayesian "
        "ensemble as the weakest model, not the strongest.",
        R,
        "question then verdict",
    ),
    # --- Gemini: headers, bullet points, bold verdicts ----------------------------------------
    Case(
        "gemini",
        "**Analysis**\n\n* The table lists BM25 recall@5 as 74.3.\n* Contriever is "
        "listed at 70.7.\n* The claim says BM25 beats Contriever.\n\n**Conclusion:** The claim "
        "is **supported** by the table.",
        E,
    ),
    Case(
        "gemini",
        "**Analysis**\n\n* Figure 3 shows the error rate rising with sequence length."
        "\n* The claim says it falls.\n\n**Conclusion:** The claim is **contradicted** by the "
        "figure.",
        R,
    ),
    Case(
        "gemini",
        "Here's a breakdown:\n\n1. **Claim:** The model uses 40% fewer parameters.\n"
        "2. **Evidence:** Table 1 shows 1.2B vs 2.0B parameters, i.e. 40% fewer.\n\n"
        "**Final Verdict:** True",
        E,
        "Final Verdict: True",
    ),
    Case(
        "gemini",
        "**Final Verdict:** False\n\nThe paper states the dataset has 12k images, but "
        "the claim says 21k.",
        R,
    ),
    Case(
        "gemini",
        "The claim cannot be verified from the provided context, because the relevant "
        "table is not included.",
        NONE,
        "cannot be verified",
    ),
    Case(
        "gemini",
        "Okay, let's analyze. The eye-tracking study in Figure 6 shows that users "
        "spend more time on the summary panel. Yes, this is consistent with the claim.",
        E,
    ),
    Case(
        "gemini",
        "**Answer:** No\n\n**Explanation:** Although the paper mentions yes/no "
        "questions in the intro, the results in Table 3 show the model underperforms on them, "
        "which contradicts the claim.",
        R,
        "yes/no questions",
    ),
    Case("gemini", "**Label:** Entailment\n\nThe numbers in Table 2 match the claim exactly.", E),
    Case("gemini", "**Label:** Contradiction", R),
    Case(
        "gemini",
        "**Label:** Neutral\n\nThe chart does not report results for this setting.",
        NONE,
        "NLI neutral",
    ),
    # --- Qwen2.5-VL / InternVL: short, sometimes terse ----------------------------------------
    Case("qwen", "Yes", E),
    Case("qwen", "No", R),
    Case("qwen", "No, the claim is not entailed. The figure shows the opposite trend.", R),
    Case("qwen", "Yes, the claim is entailed.", E),
    Case("qwen", "The answer is no.", R),
    Case("qwen", "Entailed", E, "bare label"),
    Case("qwen", "Refuted.", R),
    Case("qwen", "SUPPORTS", E, "FEVER label"),
    Case("qwen", "REFUTES", R),
    Case("qwen", "NOT ENOUGH INFO", NONE),
    Case("qwen", "", NONE, "empty response"),
    Case("qwen", "   \n ", NONE, "only whitespace"),
    Case(
        "qwen",
        "The image shows a bar chart with four groups of bars labelled by dataset.",
        NONE,
        "describes the image, no verdict",
    ),
    Case("qwen", "Based on Table 2, the answer is: Refuted", R),
    Case("qwen", "The claim is correct.", E),
    Case("qwen", "The claim is wrong. The Bayesian model reaches 71.0, not 77.1.", R),
    Case("internvl", "Answer: The claim is true.", E),
    Case(
        "internvl",
        "According to the table, the accuracy of the proposed method is 85.6%, "
        "while the claim says 86.5%. So the claim is incorrect.",
        R,
    ),
    # --- Llama 3.x: "The final answer is: $\boxed{…}$" ----------------------------------------
    Case(
        "llama",
        "## Step 1: Identify the numbers\nTable 1 gives 33.4 for the base model and "
        "35.9 for the tuned model.\n## Step 2: Compare\n35.9 > 33.4, as the claim says.\n\n"
        "The final answer is: $\\boxed{Yes}$",
        E,
    ),
    Case(
        "llama",
        "## Step 1: Read the figure\nThe curve for k=4 lies above k=8.\n## Step 2: "
        "Compare with the claim\nThe claim says k=8 is better.\n\nThe final answer is: "
        "$\\boxed{No}$",
        R,
    ),
    Case(
        "llama",
        "## Step 1\nThe caption says the results are averaged over 5 runs.\n## Step 2"
        "\nThe claim says 3 runs, which is not true.\n\nThe final answer is: $\\boxed{"
        "\\text{Refuted}}$",
        R,
    ),
    Case(
        "llama",
        "Step 1: Table 4 shows that the BayesOpt search found the best configuration "
        "in 40 trials.\nStep 2: The claim says 40 trials.\nTherefore, the claim is true.",
        E,
    ),
    Case(
        "llama",
        "## Step 1: Identify the relevant data\nThe table shows the results for three models on",
        NONE,
        "cut off, no answer",
    ),
    # --- DeepSeek-R1 / QwQ: reasoning inside <think> ------------------------------------------
    Case(
        "deepseek-r1",
        "<think>\nOkay, the claim says the model gets 45.2 on the test set. Let "
        "me check Table 2. Yes, the test column shows 45.2... wait, that's the validation "
        "column. The test column is 44.1. So the claim is wrong.\n</think>\n\nAnswer: no",
        R,
        "yes inside the reasoning",
    ),
    Case(
        "deepseek-r1",
        "<think>\nThe figure shows three curves. Hmm, the claim is about the "
        "green one. It rises monotonically. That matches.\n</think>\n\nThe claim is entailed."
        "\n\nAnswer: yes",
        E,
    ),
    Case(
        "deepseek-r1",
        "<think>\nLet me look at the table. The first row is BERT-base with "
        "accuracy 84.3, the second row is RoBERTa with 87.6, hmm, and the claim says that",
        NONE,
        "stopped inside its reasoning",
    ),
    Case(
        "deepseek-r1",
        "<think>\nThe claim: latency halves. Table 3: 120 ms to 58 ms. That's "
        "more than half. Roughly yes.\n</think>\n\n**Final Answer**\nEntailed",
        E,
        "answer on the next line",
    ),
    Case(
        "deepseek-r1",
        "<think>\nDoes the chart support the claim? The claim says the gap "
        "widens. The chart shows it narrowing.\n</think>\n\nThe chart contradicts the claim, so "
        "it is refuted.",
        R,
    ),
    # --- Hedges, echoes and verdicts with negation ---------------------------------------------
    Case(
        "gpt",
        "Answer: Yes or No\n\nThe question cannot be answered without the appendix.",
        NONE,
        "echoes the choices",
    ),
    Case(
        "claude",
        "The claim is partially true and partially false: the first number matches "
        "Table 1, the second does not.",
        R,
        "any false part refutes the claim: the last verdict stated",
    ),
    Case("gemini", "Final answer: [Entailed or Refuted]", NONE, "template echo"),
    Case(
        "claude",
        "The table does not support the claim. The reported improvement is on the "
        "development set only.",
        R,
        "does not support",
    ),
    Case(
        "gpt",
        "The claim isn't accurate: the figure's x-axis is in thousands of steps.",
        R,
        "isn't accurate",
    ),
    Case("qwen", "It is not false. The numbers agree with Table 2.", E, "double negation"),
    Case(
        "claude",
        "Both sources agree: Table 2 gives 81.4 and the text repeats it. The claim "
        "holds.\n\nAnswer: Yes",
        E,
    ),
    Case(
        "gemini",
        "It is unclear whether the reported gains are on the test split. I'm unable "
        "to determine if the claim is correct.",
        NONE,
        "unable to determine",
    ),
    Case(
        "claude",
        "Is the claim refuted by Figure 2? No: the figure shows exactly the 12% gain "
        "it describes, so it is entailed.",
        E,
        "a no that answers its own question",
    ),
    Case("gpt", "Checking each number against Table 1: all three match. Therefore, yes.", E),
    Case(
        "qwen",
        "No significant difference between the two settings is reported in Table 3, "
        "while the claim says there is a 5-point gap. The claim is refuted.",
        R,
        "a leading No that is not an answer",
    ),
    Case(
        "gemini",
        "Yes, Table 2 reports 45.2 for the base model. However, the claim says 54.2, "
        "so the claim is refuted.",
        R,
        "a yes for a step, then the verdict",
    ),
    Case(
        "llama",
        "The true positive rate in Figure 3 is 0.91 and the false positive rate is "
        "0.12; the claim gives 0.19. Therefore the claim is refuted.",
        R,
        "true/false positive rate are terms, not verdicts",
    ),
]


def right_answer(body: dict) -> str:
    """A model that is always right: the entailed claims say "Model A beats B"."""
    text = body["messages"][0]["content"][0]["text"]
    return "Reasoning…\nAnswer: yes" if "Claim: Model A beats B" in text else "Answer: no"
