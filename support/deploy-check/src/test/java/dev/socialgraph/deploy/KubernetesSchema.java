package dev.socialgraph.deploy;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Schema validation of Kubernetes objects without a cluster, against the API model of Kubernetes 1.32 generated
 * from its OpenAPI document (the official Java client's {@code io.kubernetes.client.openapi.models}, release 24).
 * Each model's {@code validateJsonElement} rejects fields the API does not define (at every depth), missing
 * required fields and values of the wrong JSON type; the object is then deserialized into the model, which also
 * parses quantities ({@code 512Mi}) and int-or-string ports.
 *
 * <p>Only the kinds listed in {@link #MODELS} are accepted, each with its one served {@code apiVersion}: a kind
 * or version the manifests should not use (a removed beta API, a typo) is an error too.
 */
final class KubernetesSchema {

    private static final String PACKAGE = "io.kubernetes.client.openapi.models.";

    /** {@code apiVersion/kind} → model class (simple name). */
    private static final Map<String, String> MODELS = Map.ofEntries(
            Map.entry("v1/Namespace", "V1Namespace"),
            Map.entry("v1/ConfigMap", "V1ConfigMap"),
            Map.entry("v1/Secret", "V1Secret"),
            Map.entry("v1/Service", "V1Service"),
            Map.entry("v1/PersistentVolumeClaim", "V1PersistentVolumeClaim"),
            Map.entry("v1/ServiceAccount", "V1ServiceAccount"),
            Map.entry("apps/v1/Deployment", "V1Deployment"),
            Map.entry("apps/v1/StatefulSet", "V1StatefulSet"),
            Map.entry("batch/v1/Job", "V1Job"),
            Map.entry("autoscaling/v2/HorizontalPodAutoscaler", "V2HorizontalPodAutoscaler"),
            Map.entry("policy/v1/PodDisruptionBudget", "V1PodDisruptionBudget"),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", "V1NetworkPolicy"));

    private static final Gson GSON = new Gson();

    private KubernetesSchema() {
    }

    /**
     * The schema errors of one object, empty when it is valid.
     *
     * @param object a parsed manifest (maps, lists, scalars)
     * @return one message per problem, naming the object
     */
    static List<String> errors(Map<String, Object> object) {
        List<String> errors = new ArrayList<>();
        String name = object.get("kind") + " " + nameOf(object);
        String key = object.get("apiVersion") + "/" + object.get("kind");
        String model = MODELS.get(key);
        if (model == null) {
            errors.add(name + ": apiVersion/kind " + key + " is not one of " + MODELS.keySet());
            return errors;
        }
        JsonElement json = GSON.toJsonTree(object);
        try {
            Class<?> type = Class.forName(PACKAGE + model);
            Method validate = type.getMethod("validateJsonElement", JsonElement.class);
            validate.invoke(null, json);
            Method fromJson = type.getMethod("fromJson", String.class);
            fromJson.invoke(null, json.toString());
        } catch (InvocationTargetException e) {
            errors.add(name + ": " + firstLine(e.getCause()));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("model " + model + " not usable", e);
        } catch (RuntimeException e) {
            errors.add(name + ": " + firstLine(e));
        }
        Object metadata = object.get("metadata");
        if (!(metadata instanceof Map<?, ?> m) || !(m.get("name") instanceof String)) {
            errors.add(name + ": metadata.name is missing");
        }
        return errors;
    }

    private static String nameOf(Map<String, Object> object) {
        return object.get("metadata") instanceof Map<?, ?> m ? String.valueOf(m.get("name")) : "(no metadata)";
    }

    /** The exception's message up to the JSON dump the generated validators append. */
    private static String firstLine(Throwable e) {
        String message = String.valueOf(e.getMessage());
        int json = message.indexOf(" JSON: ");
        return e.getClass().getSimpleName() + ": " + (json > 0 ? message.substring(0, json) : message);
    }
}
