"""The validation/test split: pure rules (`rules`) and freezing one (`services`)."""
