"""guessgym where agents are trained: its games served in OpenEnv's environment protocol.

:mod:`~guessgym.serving.environment` is an OpenEnv ``Environment`` over guessgym's chat game (text
in, text out); :mod:`~guessgym.serving.app` serves it with OpenEnv's own server (``create_app``:
HTTP ``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``, and the ``/ws`` session socket its
client uses), bounded in sessions, idle time and message size; :mod:`~guessgym.serving.client` is
the matching ``EnvClient``. ``guessgym serve`` runs it. Everything here needs the ``openenv`` extra
(``pip install "guessgym[openenv]"``); importing this package does not.
"""

from .openenv_modules import defer_openenv_packages

defer_openenv_packages()  # OpenEnv's server modules without the web UI its packages import (seconds)
