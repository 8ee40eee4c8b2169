"""Operators built on the modes: Jacobians, Hessians, HVPs, fixed points, user primitives, testing.
"""
