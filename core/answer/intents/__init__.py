"""The intents answered without resolving a definition: `route` sends a question to one of them (a comparison,
the review queue, who can see, discover, owner, downstream, a document, a table's make-up), each in its module;
everything else is a definition, resolved through core/resolve/ by core/answer/resolution.py."""
