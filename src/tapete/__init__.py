"""tapete: Peru's casino table games as the regulations write them.

Black Jack, Punto y Banca, Showdown Póker and Majestic 21 on one engine: tables, math, forced outcomes.
"""

__version__ = "0.1.0"
