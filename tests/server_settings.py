"""The settings of the servers the suite starts (tests.conftest.Server): the product's
(config.settings), with passwords hashed by a fast hasher, as Django's testing docs advise.

PBKDF2 takes half a second a password on this 2-core machine, and the servers' sign-ups and
logins (browser tests, bots, the schema's fuzzing of /api/auth/token) took minutes of the suite
for it. The product's own hasher is still what the suite's deployment and two-process tests run
(config.settings_production), and tests/accounts checks which hasher the product uses.
"""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
