package dev.socialgraph.cdc.listener;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.cdc.cache.CacheUpdates;
import dev.socialgraph.cdc.block.BlockEnforcement;
import dev.socialgraph.cdc.follower.FollowerSide;
import dev.socialgraph.store.outbox.EventTracing;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Kafka wiring of the listener: batch mode, offsets committed by the listener itself (the container's ack mode is
 * {@link ContainerProperties.AckMode#MANUAL_IMMEDIATE} and nothing acknowledges), the listener as rebalance
 * listener, idle events to retry follower databases that were down, and an error handler that retries a failed batch
 * (Redis or the dead-letter topic unreachable) without end: an event must never be skipped.
 */
@Configuration(proxyBeanMethods = false)
public class ListenerConfiguration {

    @Bean
    ConcurrentKafkaListenerContainerFactory<Object, Object> kafkaListenerContainerFactory(
            ConcurrentKafkaListenerContainerFactoryConfigurer configurer, ConsumerFactory<Object, Object> consumerFactory,
            CommonErrorHandler errorHandler, FollowEventListener listener, CdcProperties properties) {
        ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
        configurer.configure(factory, consumerFactory);
        factory.setBatchListener(true);
        factory.getContainerProperties().setAckMode(ContainerProperties.AckMode.MANUAL_IMMEDIATE);
        factory.setCommonErrorHandler(errorHandler);
        // The listener commits itself, per partition up to its first event still waiting for a database.
        factory.getContainerProperties().setConsumerRebalanceListener(listener);
        // While no records come, idle events retry the follower databases that were down.
        factory.getContainerProperties().setIdleEventInterval(properties.retryBackoff().toMillis());
        return factory;
    }

    /**
     * Retries a failed batch forever, first after {@code graph.cdc.retry-backoff}, then after twice the previous
     * pause up to {@code graph.cdc.retry-backoff-max}, keeping the consumer in its group (it pauses and polls
     * between attempts) and committing nothing.
     */
    @Bean
    CommonErrorHandler batchRetryingErrorHandler(CdcProperties properties) {
        ExponentialBackOff backOff = new ExponentialBackOff(properties.retryBackoff().toMillis(), 2.0);
        backOff.setMaxInterval(Math.max(properties.retryBackoff().toMillis(), properties.retryBackoffMax().toMillis()));
        backOff.setMaxElapsedTime(Long.MAX_VALUE); // never give up: a skipped event is lost for good
        return new DefaultErrorHandler(backOff);
    }

    @Bean
    DeadLetterPublisher deadLetterPublisher(KafkaTemplate<byte[], byte[]> template, CdcProperties properties) {
        return new DeadLetterPublisher(template, properties);
    }

    @Bean
    FollowEventListener followEventListener(FollowerSide followerSide, CacheUpdates cache, BlockEnforcement blocks,
                                            DeadLetterPublisher deadLetters, CdcMetrics metrics,
                                            CdcProperties properties, KafkaListenerEndpointRegistry registry,
                                            EventTracing tracing) {
        return new FollowEventListener(followerSide, cache, blocks, deadLetters, metrics, properties, registry,
                tracing);
    }
}
