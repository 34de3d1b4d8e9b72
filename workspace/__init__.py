"""Pages that compose several stages of the pipeline (papers, annotation, validation): the
workspace home and the paper pages; and the demo (`workspace.demo`), which drives every stage."""
