"""What a question asks: its intent and aspects (`intent`), whether drafts or pages disagree (`disagreement`), a
reviewer's question about the review queue (`review_question`), a table described instead of named and the state
words (`described`), a whole-catalog listing's condition (`listing_filter`, `name_pattern`), and a table's make-up
(`table_facts`)."""
