"""Fake vendor servers (Starlette apps) that speak each vendor's real wire format.

Run one with ``tests.support.ServerThread(create_app(recorder), free_port())``. Each picks its
behaviour from the requested model name (the part after the last ``--``, so
``secretlm-7b--stall`` stalls): ``ok``, ``rate-limited``, ``server-error``, ``disconnect``,
``stall``, ``truncated`` (ends cleanly without the vendor's end marker), ``error-line`` (an
error object mid-stream) and ``garbage`` (a line that is not JSON); the Gemini fake also knows
``blocked`` (the prompt is refused) and ``thinking`` (a thought part before the answer).
The ``Recorder`` keeps what each request sent and when the client went away.
"""
