"""The three kinds of AD number, each in its own module with its own lift: bundles (forward),
tape cells (reverse), Taylor towers; and the primitives, built from the rule table.
"""
