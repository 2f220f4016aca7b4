"""Answering: one question through the stages (`ask`). Two paths leave it: a definition, chosen (`entity`) and
resolved through core/resolve/ (`resolution`, with its values: `values`, `dbt_values`, `value_compare`), or an
intent's own answer (`intents/`: compare, discover, documents, downstream, ownership, access lists, the review
queue, a table's make-up). Around them: a conversation's memory (`conversation`), the steward's view (`steward`),
browsing (`browse`), the landing examples (`examples`) and a process's warm-up (`warm`)."""
