"""The demo in one home: the demo experts (`experts`, for `setup_demo`), synthetic experts taking
synthetic papers through every stage (`simulate`, for `simulate_annotation`), and putting that
data away once a real project starts (`archive`, for `archive_demo` and the paper list)."""
