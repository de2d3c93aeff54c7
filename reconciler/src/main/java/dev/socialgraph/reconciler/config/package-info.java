/**
 * The reconciler's settings, {@code graph.reconciler.*} ({@link dev.socialgraph.reconciler.config.ReconcilerProperties}).
 * A leaf: it depends on no feature package, so the features may read their settings while the wiring in
 * {@code dev.socialgraph.reconciler} depends on every feature, without a package cycle ({@code PackageCyclesTest}).
 */
package dev.socialgraph.reconciler.config;
