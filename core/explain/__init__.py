"""Explaining: the deterministic prose, the LLM prompt and call, citation checks, the headline and the terminal rendering, and text made safe to show."""
