"""What the hooks observed, for every part that reads it: the session buffers under
``.memory/local/buffer/`` (:mod:`memcli.observed.buffer`, written by capture, read by
compaction, the checkpoint and `mem stats`), the text filters applied to captured
output (:mod:`memcli.observed.filters`), and the new part of an assistant's transcript at
each Stop (:mod:`memcli.observed.transcript_tail`, read by capture, the checkpoint and the
importers). Standard library only, never imports
:mod:`memcli.capture`."""
