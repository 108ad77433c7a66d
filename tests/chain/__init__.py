"""The real mail chain (unbound, Postfix, OpenDKIM, OpenDMARC) in front of speakerbot."""
