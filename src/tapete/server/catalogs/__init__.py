"""The page's catalogs: the rules and the games in words, every message of a language."""
