"""Symmetric Hangman (Saija & Henken 2011): rules, the seed's strategy, ours."""
