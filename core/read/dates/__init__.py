"""Dates and times written in a question: the dates and periods (`written`, `relative`, `month_range`, `time_words`,
read as `mention.DateMention`), the days AsOf answers for (`day_range`), the "as recorded on" phrase and the catalog
state that answers it (`recorded`), and the reporting date, period and evaluation time decided from them (`when`)."""
