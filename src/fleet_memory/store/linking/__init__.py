"""Building the memory graph at put time: temporal and semantic link candidates of new units, the
pairs kept, the agents' embeddings held between puts, and reading the graph's edges back."""
