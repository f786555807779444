"""The world kit: the parts every world shares, so a world writes only what is its own.

- `skills`: one table-driven skill book (`SkillDef` rows, one ``name(args)`` parser, argument
  ranges, progress events, the undo view and the event -> skill inverse as data).
- `pictures`: a grid canvas and the one GIF writer (`grid_rendering` turns a per-state frame
  function into a world's `Rendering`; `GifRecorder` draws an episode's frames as it plays).
- `base`: `WorldBase`, the defaults for the members that are the same in most worlds (layouts from
  a table, action names from an enum, event counts per kind and seat, the default partner).
"""
