"""Answering: one question through the stages (ask), the intents that are not a definition (compare, discover, documents, downstream, ownership, the review queue), and the steward's view."""
