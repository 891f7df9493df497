"""onlinerank.registry: the plug-in registry (register, make) and the method-ownership helpers the
engine uses to decide whether a block hook may replace the per-round methods."""

import pytest

from onlinerank.registry import Registry, block_hook_applies, owner


class Base:
    def step(self):
        return "base"

    def block(self):
        return "base block"


class WithBlock(Base):
    def step(self):
        return "fast"

    def block(self):
        return "fast block"


class OverridesStepOnly(WithBlock):
    """Overrides a per-round method but not the block method: the block would bypass it."""

    def step(self):
        return "recorded"


class OverridesBoth(OverridesStepOnly):
    def block(self):
        return "own block"


def test_owner_is_the_defining_class_in_the_mro():
    assert owner(Base, "step") is Base
    assert owner(WithBlock, "step") is WithBlock
    assert owner(OverridesStepOnly, "block") is WithBlock
    assert owner(OverridesStepOnly, "step") is OverridesStepOnly
    assert owner(OverridesBoth, "block") is OverridesBoth


def test_block_hook_applies_only_when_at_least_as_derived_as_every_per_round_method():
    assert block_hook_applies(Base, "block", ("step",))
    assert block_hook_applies(WithBlock, "block", ("step",))
    assert not block_hook_applies(OverridesStepOnly, "block", ("step",))
    assert block_hook_applies(OverridesBoth, "block", ("step",))
    assert block_hook_applies(OverridesStepOnly, "block", ())  # nothing to respect


def test_register_adds_by_name_and_returns_the_class():
    reg = Registry("widget")

    @reg.register
    class Foo:
        name = "foo"

        def __init__(self, size=1):
            self.size = size

    assert reg == {"foo": Foo}
    assert reg.kind == "widget"
    made = reg.make("foo", size=3)
    assert isinstance(made, Foo) and made.size == 3


def test_register_refuses_a_missing_name_and_duplicates():
    reg = Registry("widget")

    class NoName:
        pass

    class EmptyName:
        name = ""

    with pytest.raises(TypeError, match="NoName needs a class attribute 'name'"):
        reg.register(NoName)
    with pytest.raises(TypeError, match="EmptyName needs"):
        reg.register(EmptyName)

    class A:
        name = "a"

    class A2:
        name = "a"

    reg.register(A)
    with pytest.raises(ValueError, match="duplicate widget name 'a'"):
        reg.register(A2)
    assert reg["a"] is A


def test_make_an_unknown_name_lists_the_known_ones_sorted():
    reg = Registry("gadget")
    for nm in ("zeta", "alpha"):
        reg.register(type(nm.title(), (), {"name": nm}))
    with pytest.raises(ValueError, match=r"unknown gadget 'beta'; known: alpha, zeta$"):
        reg.make("beta")


def test_substituted_plays_a_variant_under_the_name_and_puts_the_class_back():
    reg = Registry("widget")

    @reg.register
    class Plain:
        name = "plain"

    class Variant(Plain):
        pass

    with reg.substituted("plain", Variant):
        assert reg["plain"] is Variant and type(reg.make("plain")) is Variant
        assert reg.substitutions == {"plain": Plain}
        with pytest.raises(RuntimeError, match="widget 'plain' is already substituted"):
            with reg.substituted("plain", Variant):
                pass
    assert reg["plain"] is Plain and not reg.substitutions
    with pytest.raises(KeyError), reg.substituted("plain", Variant):
        raise KeyError("boom")
    assert reg["plain"] is Plain and not reg.substitutions


def test_substituted_refuses_what_is_not_a_variant_of_the_plugin():
    reg = Registry("widget")

    @reg.register
    class Plain:
        name = "plain"

    class Other:
        name = "plain"

    class Renamed(Plain):
        name = "renamed"

    with (
        pytest.raises(ValueError, match="unknown widget 'absent'; known: plain"),
        reg.substituted("absent", Plain),
    ):
        pass
    with pytest.raises(TypeError, match="does not subclass the registered widget Plain"):
        with reg.substituted("plain", Other):
            pass
    with pytest.raises(TypeError, match="Renamed must keep the widget's name 'plain'"):
        with reg.substituted("plain", Renamed):
            pass
    assert reg["plain"] is Plain and not reg.substitutions
