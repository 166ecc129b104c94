"""Helpers shared by the tests: parity checks against PyTorch and fixture models for the C++ tests."""
