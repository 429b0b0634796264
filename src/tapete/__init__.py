"""tapete: Peru's casino table games (Black Jack, Punto y Banca, Showdown Póker, Majestic 21) as the regulations write them."""

__version__ = "0.1.0"
