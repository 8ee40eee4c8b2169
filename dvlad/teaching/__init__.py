"""Teaching: the naive (wrong on purpose) dual numbers, the guided tour, pictures of tapes.

naive (untagged duals), tour (``python -m dvlad``: lesson prints, tour_basics and tour_more hold
the sections), graph (tape_text, tape_graph and its TapePicture) with svg (the drawing, no
Graphviz needed), epsilon (a bundle written out as a sum over its ε's, for the notebook).
"""
