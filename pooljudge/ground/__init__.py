"""The ground floor: what every floor may use — the name grammar, shared defaults, progress
bars, child processes' lifetime, malloc tuning — each independent of the others, all over
:mod:`pooljudge.errors` (docs/architecture.md). Light: importing this package loads no module."""
