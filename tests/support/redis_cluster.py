"""A Redis Cluster of the tests' own: three masters on free loopback ports, in a temporary
folder, no replicas. The slots are split in three and the nodes introduced to each other with
CLUSTER ADDSLOTS and CLUSTER MEET (what `redis-cli --cluster create` does), so only
`redis-server` is needed; it is ready in about a second."""

from __future__ import annotations

import time
from pathlib import Path

import redis
from redis.cluster import RedisCluster

from tests.support.redis_server import RedisServer

SLOTS = 16384


class RedisClusterServers:
    """`masters` cluster nodes; `url` names the first (a client learns the rest from it)."""

    def __init__(self, folder: Path, masters: int = 3) -> None:
        self.nodes: list[RedisServer] = []
        try:
            for i in range(masters):
                self.nodes.append(
                    RedisServer(
                        folder / f"node{i}",
                        *("--cluster-enabled", "yes"),
                        *("--cluster-config-file", "nodes.conf"),
                        *("--cluster-node-timeout", "5000"),
                    )
                )
            self._form()
        except BaseException:
            self.stop()
            raise

    def _form(self) -> None:
        clients = [n.client() for n in self.nodes]
        per = SLOTS // len(clients)
        for i, client in enumerate(clients):
            last = SLOTS - 1 if i == len(clients) - 1 else (i + 1) * per - 1
            client.execute_command("CLUSTER ADDSLOTS", *range(i * per, last + 1))
        for node in self.nodes[1:]:
            clients[0].execute_command("CLUSTER MEET", "127.0.0.1", node.port, node.bus_port)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if all(self._settled(c) for c in clients):
                return
            time.sleep(0.1)
        raise RuntimeError("the test cluster did not settle")

    def _settled(self, client: redis.Redis) -> bool:
        info = client.execute_command("CLUSTER INFO")
        if isinstance(info, bytes):
            info = info.decode()
        if isinstance(info, str):
            info = dict(line.split(":", 1) for line in info.split() if ":" in line)
        return (
            str(info.get("cluster_state")) == "ok"
            and int(info.get("cluster_known_nodes", 0)) == len(self.nodes)
            and int(info.get("cluster_slots_ok", 0)) == SLOTS
        )

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.nodes[0].port}/0"

    def client(self) -> RedisCluster:
        return RedisCluster(host="127.0.0.1", port=self.nodes[0].port, socket_timeout=30)

    def flushall(self) -> None:
        for node in self.nodes:
            node.client().flushall()

    def keys_per_node(self) -> list[int]:
        return [node.client().dbsize() for node in self.nodes]

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
