"""(filled by issue #17's next functions)"""
__all__ = ["FUNCTIONS"]

# numpy function -> dvlad's handler (merged into dvlad.arrays.protocol.FUNCTIONS)
FUNCTIONS = {}
