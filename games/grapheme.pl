#!/usr/bin/perl
# grapheme.pl - writes games/grapheme_table.h, the Unicode properties the
# grapheme cluster rules of UAX #29 need (games/utf8.c), from the
# Unicode database of the perl that runs it:
#     perl games/grapheme.pl > games/grapheme_table.h
# Per code point: Grapheme_Cluster_Break (Hangul syllables are left out:
# utf8.c computes LV and LVT), Extended_Pictographic, and the
# Indic_Conjunct_Break of Unicode 15.1 (GB9c), derived as that version
# defines it: Linker = Indic_Syllabic_Category Virama and Consonant = ISC
# Consonant in Bengali, Devanagari, Gujarati, Oriya, Telugu and Malayalam;
# Extend = ZWJ, or Grapheme_Cluster_Break Extend with a combining class
# other than 0, that is not a Linker.
use strict;
use warnings;
use Unicode::UCD qw(charinfo);

my %gcb = (Other => 'GB_OTHER', CR => 'GB_CR', LF => 'GB_LF', Control => 'GB_CONTROL',
	   Extend => 'GB_EXTEND', ZWJ => 'GB_ZWJ', Regional_Indicator => 'GB_RI',
	   Prepend => 'GB_PREPEND', SpacingMark => 'GB_SPACINGMARK', L => 'GB_L', V => 'GB_V',
	   T => 'GB_T');
my @names = qw(CR LF Control Extend ZWJ Regional_Indicator Prepend SpacingMark L V T);
my @out;
my ($lo, $prev) = (0, '');

sub props {
	my ($c) = @_;
	my $s = chr($c);
	my $g = 'Other';

	return 'GB_OTHER,0' if $c >= 0xac00 && $c <= 0xd7a3;
	for my $n (@names) {
		if ($s =~ /\p{Grapheme_Cluster_Break=$n}/) {
			$g = $n;
			last;
		}
	}
	my @f;
	push @f, 'GF_PICT' if $s =~ /\p{Extended_Pictographic}/;
	my $indic = $s =~ /\p{Script=Bengali}|\p{Script=Devanagari}|\p{Script=Gujarati}|\p{Script=Oriya}|\p{Script=Telugu}|\p{Script=Malayalam}/;
	if ($indic && $s =~ /\p{Indic_Syllabic_Category=Virama}/) {
		push @f, 'GF_LINKER';
	} elsif ($indic && $s =~ /\p{Indic_Syllabic_Category=Consonant}/) {
		push @f, 'GF_CONSONANT';
	} elsif ($g eq 'ZWJ' || ($g eq 'Extend' && (charinfo($c) || {})->{combining})) {
		push @f, 'GF_INCB_EXTEND';
	}
	return "$gcb{$g}," . (@f ? join('|', @f) : '0');
}

for my $c (0x80 .. 0x110000) {
	my $p = $c <= 0x10ffff && !($c >= 0xd800 && $c <= 0xdfff) ? props($c) : 'GB_OTHER,0';

	if ($p ne $prev) {
		push @out, [ $lo, $c - 1, $prev ] if $prev ne '' && $prev ne 'GB_OTHER,0';
		($lo, $prev) = ($c, $p);
	}
}
print "/*\n * grapheme_table.h - written by games/grapheme.pl from Unicode " . Unicode::UCD::UnicodeVersion() .
      " (see there):\n * code points from U+0080 up whose grapheme cluster properties are not\n" .
      " * Other, in ranges, sorted. Included by games/utf8.c only.\n */\n";
print "static const struct gb_range gb_ranges[] = {\n";
for my $r (@out) {
	my ($g, $f) = split /,/, $r->[2];
	printf "\t{ 0x%04x, 0x%04x, %s, %s },\n", $r->[0], $r->[1], $g, $f;
}
print "};\n";
