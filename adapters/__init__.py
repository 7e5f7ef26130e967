"""guessgym's games in the forms other trainers define for their environments.

:mod:`~guessgym.adapters.skyrl` is a SkyRL-Gym text environment (the ``skyrl`` extra);
:mod:`~guessgym.adapters.verifiers` a verifiers environment module (the ``verifiers`` extra). Each module
imports its trainer's package only when used; importing this package imports none.
"""
