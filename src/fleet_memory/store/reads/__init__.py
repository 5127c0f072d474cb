"""Reads that rank and resolve: recall's candidates and their features, what an agent already
knows that helps read a new put, and the units of a graph picture."""
