// An app imports WaypostKit alone: declarations, events and activities are the routing core's
// types, re-exported so that `.windowGroup(…)` and `UserActivity` need no second import.
@_exported public import ExternalEvents
