//! Background flows under access control (paper 004, Section III-B; see
//! [`admission`](crate::admission)): the opener admits at most M of them at a time, each on its
//! own pool connection; the others wait, outside the network, in arrival order.

use std::time::Duration;

use super::{Event, Role, Session, SessionError};
use crate::admission::{Admission, AdmissionConfig, AdmissionError, Verdict};
use crate::flow::state::AdmissionEvent;
use crate::flow::Delivery;
use crate::ids::FlowId;

impl Session {
    /// (Opener) Puts background flows under access control with `config` (replacing any
    /// earlier controller; flows already admitted stay admitted).
    pub fn set_admission(&mut self, config: AdmissionConfig) -> Result<(), AdmissionError> {
        self.admission = Some(Admission::new(config)?);
        Ok(())
    }

    /// The access controller, if background flows are under access control.
    pub fn admission(&self) -> Option<&Admission> {
        self.admission.as_ref()
    }

    /// (Opener) An application connected on a background route. Like
    /// [`open_flow`](Self::open_flow) without a warm connection, but under access control:
    /// when admitted, the driver opens its connection as for any flow; when waiting, the flow
    /// takes no bytes ([`send_capacity`](Self::send_capacity) is 0) and the driver opens no
    /// connection until [`Event::ConnNeeded`] names it. A flow refused (the waiting queue is
    /// full) is not created. Without access control every flow is admitted.
    pub fn open_background_flow(
        &mut self,
        now: Duration,
        route: &str,
        class: u8,
        size_hint: Option<u64>,
    ) -> Result<(FlowId, Verdict), SessionError> {
        if self.role != Role::Opener {
            return Err(SessionError::NotOpener);
        }
        // The id the flow will have: the controller decides before the flow exists.
        let id = FlowId(self.next_flow);
        let verdict = match self.admission.as_mut() {
            Some(a) => a.arrive(now, id),
            None => Verdict::Admitted,
        };
        if verdict == Verdict::Refused {
            let waiting = self.admission.as_ref().map_or(0, Admission::waiting);
            return Err(SessionError::BackgroundFull(waiting));
        }
        match self.open_flow(now, None, route, class, size_hint) {
            Ok(opened) => debug_assert_eq!(opened, id),
            Err(e) => {
                if let Some(a) = self.admission.as_mut() {
                    a.release(now, id, None);
                }
                return Err(e);
            }
        }
        if let Some(f) = self.flows.get_mut(&id) {
            let waiting = matches!(verdict, Verdict::Waiting(_));
            f.admission.on(AdmissionEvent::Arrive { waiting });
            if waiting {
                f.open = Delivery::Idle;
                // Its application waits for the admission's FlowWritable.
                self.wants_room.insert(id);
            }
        }
        let admitted = self.admission_tick(now);
        self.admit(admitted);
        Ok((id, verdict))
    }

    /// Lets the adaptive loop run (M may grow and admit waiting flows). Drivers call it now and
    /// then (every second, say); every call that takes `now` does it too.
    pub fn tick(&mut self, now: Duration) {
        let admitted = self.admission_tick(now);
        self.admit(admitted);
    }

    pub(crate) fn admission_tick(&mut self, now: Duration) -> Vec<FlowId> {
        self.admission
            .as_mut()
            .map(|a| a.tick(now))
            .unwrap_or_default()
    }

    /// Background bytes of flow `id` went out or came in.
    pub(crate) fn background_bytes(&mut self, now: Duration, id: FlowId, n: u64) {
        // (Called per chunk sent: no flow lookup without admission control.)
        let Some(a) = self.admission.as_mut() else {
            return;
        };
        if self
            .flows
            .get(&id)
            .is_some_and(|f| f.admission.background())
        {
            a.sent(now, n);
        }
    }

    /// A background flow ended (completed, reset, or lost for good): its slot goes to the next
    /// waiting flow.
    pub(crate) fn background_closed(&mut self, now: Duration, id: FlowId, size: Option<u64>) {
        let admitted = match self.admission.as_mut() {
            Some(a) => a.release(now, id, size),
            None => return,
        };
        self.admit(admitted);
    }

    /// Flows that were waiting may start: their opening goes out on the connection the driver
    /// now opens for each.
    pub(crate) fn admit(&mut self, flows: Vec<FlowId>) {
        for id in flows {
            let Some(f) = self.flows.get_mut(&id) else {
                continue;
            };
            if !f.admission.waiting() {
                continue;
            }
            f.admission.on(AdmissionEvent::Admit);
            f.open = Delivery::Queued;
            self.events.push_back(Event::ConnNeeded { owner: id });
            self.check_writable(id);
        }
    }
}
