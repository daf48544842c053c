"""What a host says about itself on the LAN, and how a client reads it: hostile TXT records and answers never crash
the client, never reach the screen unescaped, and a record that cannot be used is skipped."""

from __future__ import annotations

from nothanks_tui.client.discovery import FoundHost, found_host, sorted_hosts
from nothanks_tui.link.dnssd import HostTxt, read_txt, txt_record
from nothanks_tui.link.wire import PROTOCOL_VERSION

SERVICE = "alice (box:7777)._nothanks._tcp.local."


def as_bytes(record: dict[str, str]) -> dict[bytes, bytes]:
    return {key.encode(): value.encode() for key, value in record.items()}


def test_a_hosts_record_reads_back_as_it_was_written():
    record = as_bytes(txt_record("alice", PROTOCOL_VERSION, 3))
    assert read_txt(record) == HostTxt("alice", PROTOCOL_VERSION, 3)
    host = found_host(SERVICE, ["127.0.0.1"], 7777, record)
    assert host == FoundHost(SERVICE, "alice", "127.0.0.1", 7777, PROTOCOL_VERSION, 3)
    assert host.compatible and host.target == "127.0.0.1:7777"


def test_a_long_or_unprintable_host_name_is_written_as_a_name():
    written = txt_record("\x1b[31mred\x1b[0m " + "x" * 50, 2, -1)
    assert written == {"name": "red " + "x" * 16, "proto": "2", "seats": "0"}
    assert txt_record("\x07", 2, 1)["name"] == "nothanks"


def test_escape_codes_markup_and_huge_values_are_cleaned_and_bounded():
    txt = read_txt({
        b"name": b"\x1b]0;pwned\x07[bold red]Mallory\x1b[2J\r\n\xe2\x80\xae" + b"A" * 10_000,
        b"proto": b"2" * 10_000,
        b"seats": b"99999999999999999999",
    })  # fmt: skip
    assert txt.name is not None and "\x1b" not in txt.name and "\n" not in txt.name and "\u202e" not in txt.name
    assert txt.name.startswith("[bold red]Mallory") and len(txt.name) <= 20  # markup stays literal text
    assert txt.protocol is None and txt.free_seats is None


def test_values_that_are_not_numbers_or_text_are_left_out():
    assert read_txt({b"name": None, b"proto": b"-1", b"seats": b"\xff"}) == HostTxt(None, None, None)
    assert read_txt({b"proto": b" 2", b"seats": "١٢".encode()}) == HostTxt(None, None, None)  # only ASCII digits
    assert read_txt(None) == HostTxt(None, None, None)
    assert read_txt([b"name=x"]) == HostTxt(None, None, None)
    assert read_txt({1: b"x", b"NAME": b"bob"}) == HostTxt("bob", None, None)  # keys are case-insensitive


def test_an_answer_without_a_usable_address_or_port_is_skipped():
    record = as_bytes(txt_record("bob", 2, 1))
    assert found_host(SERVICE, [], 7777, record) is None
    assert found_host(SERVICE, ["not an address", "224.0.0.251", "0.0.0.0", "fe80::1"], 7777, record) is None
    assert found_host(SERVICE, ["127.0.0.1"], 0, record) is None
    assert found_host(SERVICE, ["127.0.0.1"], 70_000, record) is None
    assert found_host(SERVICE, ["127.0.0.1"], None, record) is None
    assert found_host(None, ["127.0.0.1"], 7777, record) is None
    assert found_host(SERVICE, ["2001:db8::1", "192.0.2.7"], 7777, record).address == "192.0.2.7"  # IPv4 first
    assert found_host(SERVICE, ["2001:db8::1"], 7777, record).target == "[2001:db8::1]:7777"


def test_a_host_that_says_nothing_is_named_after_its_service_and_is_not_playable():
    host = found_host("\x1b[31mEve\x1b[0m._nothanks._tcp.local.", ["192.0.2.9"], 7777, {})
    assert host is not None and host.name == "Eve" and host.protocol is None and not host.compatible


def test_hosts_we_can_play_at_come_first_then_by_name():
    def host(name: str, protocol: int) -> FoundHost:
        return FoundHost(name, name, "192.0.2.1", 7777, protocol, 1)

    listed = sorted_hosts([host("zed", 2), host("Old", 1), host("amy", 2)])
    assert [h.name for h in listed] == ["amy", "zed", "Old"]


async def test_a_flood_of_services_is_looked_up_only_up_to_a_bound():
    from zeroconf import ServiceStateChange

    from nothanks_tui.client.discovery import MAX_HOSTS, ZeroconfBrowser

    browser = ZeroconfBrowser()
    for index in range(10 * MAX_HOSTS):
        browser._changed(None, "_nothanks._tcp.local.", f"h{index}._nothanks._tcp.local.", ServiceStateChange.Added)
    assert len(browser._lookups) == MAX_HOSTS  # the rest is ignored until some go away
    await browser.close()  # cancels the lookups in flight
