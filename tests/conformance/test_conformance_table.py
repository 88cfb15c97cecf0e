"""docs/conformance.md holds the coverage table generated from the registrations, up to date."""

from tests.conformance import registry, table


def test_the_committed_table_is_current():
    assert table.current_doc_section() == table.section(), (
        "docs/conformance.md is stale: run `python -m tests.conformance.table --write`")


def test_every_command_and_event_kind_is_compared():
    scenarios = registry.load_scenarios()
    compared = {item for s in scenarios.values() for item in s.items}
    missing = [c for c in registry.COMMANDS if c not in compared]
    missing += [e for e in registry.EVENT_KINDS if registry.event_key(e) not in compared]
    assert not missing, f"not compared by any scenario: {missing}"
    assert len(registry.COMMANDS) == 95 and len(registry.EVENT_KINDS) == 18


def test_known_differences_name_registered_items():
    scenarios = registry.load_scenarios()
    for (name, item, _label) in registry.KNOWN_BUGS:
        assert item in scenarios[name].items, (name, item)
