"""The Vocabulary browser: the token table (a Qt model over views.vocab_table), merge tree,
words using a token, plots."""
