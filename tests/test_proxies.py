"""The client's address behind trusted proxies (service/api/proxies.py): only a peer inside
BATAYO_TRUSTED_PROXIES may say who it forwards for."""

from __future__ import annotations

from service.api.proxies import client, networks

RANGES = networks(["10.0.0.0/24", "::1"])


def test_an_untrusted_peer_is_the_client_whatever_its_header_says():
    assert client("203.0.113.9", "198.51.100.1", RANGES) == "203.0.113.9"
    assert client("203.0.113.9", None, RANGES) == "203.0.113.9"


def test_a_trusted_proxy_names_the_right_most_untrusted_hop():
    # the client wrote a fake first hop; the proxy appended the peer it really saw
    assert client("10.0.0.5", "1.2.3.4, 198.51.100.7", RANGES) == "198.51.100.7"
    # two trusted proxies in a row: both skipped
    assert client("10.0.0.5", "198.51.100.7, 10.0.0.6", RANGES) == "198.51.100.7"
    assert client("::1", "2001:db8::1", RANGES) == "2001:db8::1"


def test_a_malformed_hop_stops_the_walk_at_the_peer():
    assert client("10.0.0.5", "1.2.3.4, not-an-address", RANGES) == "10.0.0.5"
    assert client("10.0.0.5", " , ", RANGES) == "10.0.0.5"
