"""The Stop checkpoint: at the end of each assistant turn, ask the model once to record the
lessons the rules located (see :mod:`memcli.checkpoint.candidates`) and dismiss the rest.

Hook path: nothing here imports :mod:`re`, :mod:`json`, typing or any third-party library.
"""
