/**
 * The check service's settings, {@code graph.check.*} ({@link dev.socialgraph.check.config.CheckProperties}). A leaf:
 * it depends on no feature package, so every feature may read its settings while the wiring in
 * {@code dev.socialgraph.check} depends on every feature, without a package cycle ({@code PackageCyclesTest}).
 */
package dev.socialgraph.check.config;
