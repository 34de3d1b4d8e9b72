"""Pages that compose several stages of the pipeline (papers, annotation, validation)."""
