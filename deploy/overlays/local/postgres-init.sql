-- The four shard databases of the local topology (graph-store/src/main/resources/graph-shards-local.yml).
-- Run once by the postgres image on an empty data directory. The write service would also create them
-- (graph.shards.create-databases) but the other services must not start against missing databases.
CREATE DATABASE graph_following_0;
CREATE DATABASE graph_following_1;
CREATE DATABASE graph_follower_0;
CREATE DATABASE graph_follower_1;
