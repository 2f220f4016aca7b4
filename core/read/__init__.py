"""Reading a question: its intent, its dates (reporting date, period, evaluation time), which entity it names, and the optional checked LLM reading."""
