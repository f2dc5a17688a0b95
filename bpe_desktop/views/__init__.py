"""The presentation layer: what the panels and the command line show, computed without Qt.

Between the domain (:mod:`bpe_desktop.core`) and the front ends (:mod:`bpe_desktop.ui`,
:mod:`bpe_desktop.cli`): the vocabulary table's columns, sorting and filters, the plots'
data, an encoding laid out for display, progress estimates, and the support GUI jobs
share (chunked work that lets the GUI thread in, models freed off the GUI thread). It
imports the domain and never Qt; the domain never imports it.
"""
