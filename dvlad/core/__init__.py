"""The bottom layer: tags and errors, base numbers, the rule table, the one lift, structures.

Nothing here imports from the layers above (numbers, modes, arrays, operators, teaching).
"""
