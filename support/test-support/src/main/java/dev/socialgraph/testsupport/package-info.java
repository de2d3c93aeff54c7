/**
 * Real PostgreSQL, Redis and Kafka servers for integration tests ({@code *IT}), needing nothing but a
 * JDK by default.
 *
 * <p>Entry point: {@link dev.socialgraph.testsupport.TestServers}. The shared servers ({@link
 * dev.socialgraph.testsupport.PostgresServer}, {@link dev.socialgraph.testsupport.RedisServer}, {@link
 * dev.socialgraph.testsupport.KafkaServer}) hand each test class its own database, Redis logical
 * database or topic; the private ones ({@link dev.socialgraph.testsupport.PrivateRedisServer}, {@link
 * dev.socialgraph.testsupport.PrivateKafkaServer}) belong to one test that stops and starts them.
 * The embedded servers themselves, and the services run from their jars, come from local-runtime
 * ({@code dev.socialgraph.localruntime}), which the launcher uses too.
 */
package dev.socialgraph.testsupport;
