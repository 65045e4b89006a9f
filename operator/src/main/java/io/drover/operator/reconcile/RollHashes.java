package io.drover.operator.reconcile;

import java.util.Map;

/**
 * What a cluster's pod template is derived from, in hashes, and why it rolled.
 *
 * <p>{@code config} goes into the pod template (a change rolls the fleet). The others sit on the
 * StatefulSet only, where changing them rolls nothing: they let the next roll's event name its
 * cause. {@code rollKey} is the uid of the Secret that keys the secrets hash ({@code RollKey}): a
 * new key changes the secrets hash with no Secret value changed, and the event must not say that
 * one did.
 */
record RollHashes(String config, String settings, String secrets, String rollKey) {
    static final String SETTINGS_HASH = "drover.io/settings-hash";
    static final String SECRETS_HASH = "drover.io/secrets-hash";
    static final String ROLL_KEY = "drover.io/roll-key";

    /** Puts the annotations a later {@link #causeSince} reads on the StatefulSet. */
    void annotate(Map<String, String> annotations) {
        annotations.put(SETTINGS_HASH, settings);
        annotations.put(SECRETS_HASH, secrets);
        annotations.put(ROLL_KEY, rollKey);
    }

    /** Why the pod template changed since the StatefulSet with these annotations was written. */
    String causeSince(Map<String, String> was) {
        boolean settingsChanged = was.containsKey(SETTINGS_HASH) && !settings.equals(was.get(SETTINGS_HASH));
        String secretCause = was.containsKey(SECRETS_HASH) && !secrets.equals(was.get(SECRETS_HASH)) ? secretCause(was) : null;
        if (settingsChanged && secretCause != null) {
            return "the settings changed, and " + secretCause;
        }
        if (settingsChanged) {
            return "the settings changed";
        }
        if (secretCause != null) {
            return secretCause;
        }
        return "the pod template changed (image, resources, placement, JVM options, env or an operator upgrade)";
    }

    private String secretCause(Map<String, String> was) {
        String wasKey = was.get(ROLL_KEY);
        if (wasKey == null) {
            // Written by an operator before the marker: its hash may have been of another form.
            return "a referenced Secret changed, or this is the first roll by an operator version that fingerprints"
                    + " Secrets differently";
        }
        if (!wasKey.equals(rollKey)) {
            return "the roll hash's key is new (its Secret was deleted); no Secret value need have changed";
        }
        return "a referenced Secret changed (e.g. a rotated password or API token)";
    }
}
