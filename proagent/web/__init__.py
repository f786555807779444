"""Watch and play in the browser: the replay viewer and human play (standard-library server,
static pages in static/, JSON endpoints)."""
