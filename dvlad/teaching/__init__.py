"""Teaching: the naive (wrong on purpose) dual numbers, the guided tour, pictures of tapes.
"""
