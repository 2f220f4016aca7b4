"""The names a question mentions and which visible entity it is about: names written exactly (`named`), misspelt
(`spelling`), paraphrased (`paraphrase`), described by kind (`kinds`), made up (`made_up`), the role's vocabulary
(`vocabulary`), the words that only say how something is asked (`asking`), the clause's subject (`subject`), and one
scoring model over all of them (`ranker`, weighing `candidate.Candidate`)."""
