namespace fsr {}
