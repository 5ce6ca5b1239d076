"""Fake vendor servers (Starlette apps) that speak each vendor's real wire format.

Run one with ``tests.support.ServerThread(create_app(recorder), free_port())``. Each picks its
behaviour from the requested model name (the part after the last ``--``, so
``secretlm-7b--stall`` stalls): ``ok``, ``rate-limited``, ``server-error``, ``disconnect``,
``stall``, ``truncated`` (ends cleanly without the vendor's end marker), ``error-line`` (an
error object mid-stream) and ``garbage`` (a line that is not JSON); the Gemini fake also knows
``blocked`` (the prompt is refused) and ``thinking`` (a thought part before the answer).
Every fake also plays the faults of ``_faults`` (429 with ``Retry-After``, 502, 503, a reset
connection before or after the first token, a malformed first event, HTML instead of a stream,
silence after the headers, a slow drip, an oversized event, and ``<fault>-twice``: the fault
twice, then an answer). The ``Recorder`` keeps what each request sent, when the client went
away, and how many streams are still being played.
"""
