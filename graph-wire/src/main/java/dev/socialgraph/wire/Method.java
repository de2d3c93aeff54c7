package dev.socialgraph.wire;

/** The HTTP methods of the fleet's API, without any server stack's own type. */
public enum Method {
    GET, POST, PUT, DELETE
}
