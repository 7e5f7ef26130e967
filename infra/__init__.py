"""Infrastructure every layer of guessgym builds on, and nothing of the games.

Files written atomically and locked (:mod:`~guessgym.infra.atomic`), the disk cache
(:mod:`~guessgym.infra.cache`), array checksums (:mod:`~guessgym.infra.checksum`), optional
dependencies that fail with their install command (:mod:`~guessgym.infra.optional`), bounded input
files (:mod:`~guessgym.infra.inputs`), the one resumable append-only log
(:mod:`~guessgym.infra.resumable_log`), and request bodies bounded for every server guessgym runs
(:mod:`~guessgym.infra.body_limit`). This package imports nothing else of guessgym.
"""
