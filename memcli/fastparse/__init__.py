"""Parsing at hook speed: compiled regular expressions without `import re`
(:mod:`memcli.fastparse.fastre`) and JSON without `import json`
(:mod:`memcli.fastparse.fastjson`). Standard library only; shared by capture, privacy,
the checkpoint and the query path."""
