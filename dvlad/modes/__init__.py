"""The modes: forward and reverse operators (api), the reverse sweep, Taylor-series operators.
"""
