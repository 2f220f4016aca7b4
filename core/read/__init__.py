"""Reading a question, once: `reading.read` turns its text (and the subject a follow-up carries) into one typed
`Reading` that every later stage takes instead of the text. What it reads, by sub-package: the dates and times
written (`dates`), the names mentioned and which visible entity is meant (`names`), what is asked (`intents`), and
the optional checked LLM reading (`llm`)."""
