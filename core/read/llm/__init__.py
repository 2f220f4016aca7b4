"""The optional LLM reading: one call to a language model (`model`) and a reading of the question it proposes,
checked field by field against the deterministic one (`reading`)."""
