"""The world interface (`interface`, `types`, `capabilities`) and the world kit (`kit`).

The lowest layer of proagent: it imports nothing else of the package, and every world and every
part of the core that reads a world imports its vocabulary from here.
"""
